"""Entry point of the stockroom service."""
import argparse
import json

from inventory import Inventory


def load_config(path):
    with open(path) as handle:
        return json.load(handle)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    args = parser.parse_args()
    config = load_config(args.config)
    inventory = Inventory()
    # TODO: load items from the database at config["database"]
    print(f"stockroom listening on port {config['port']}")
    for item in inventory.restock_list():
        print(item)


if __name__ == "__main__":
    main()
