"""Which items of the stockroom need reordering."""


def restock_list(items):
    """Names of the items at or below their reorder threshold, sorted."""
    return sorted(name for name, (quantity, threshold) in items.items() if quantity <= threshold)
