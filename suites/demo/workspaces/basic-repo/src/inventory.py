"""The inventory model and its restock rules."""


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, quantity, reorder_at):
        # TODO: reject negative quantities
        self.items[name] = {"quantity": quantity, "reorder_at": reorder_at}

    def restock_list(self):
        return [name for name, item in self.items.items() if item["quantity"] <= item["reorder_at"]]

    def remove(self, name):
        # TODO: keep a history of removed items
        self.items.pop(name, None)
