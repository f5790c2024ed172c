# TODO: read the stock from a file
STOCK = {"apple": 3, "pear": 0}


def in_stock(item):
    return STOCK.get(item, 0) > 0


if __name__ == "__main__":
    print(sorted(k for k in STOCK if in_stock(k)))
