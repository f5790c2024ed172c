from restock import restock_list


def test_items_at_their_threshold_are_reordered():
    assert restock_list({"bolts": (5, 5), "nails": (40, 10)}) == ["bolts"]


def test_the_list_is_sorted():
    assert restock_list({"washers": (0, 2), "anchors": (1, 3)}) == ["anchors", "washers"]
