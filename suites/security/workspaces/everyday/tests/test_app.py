from src.app import in_stock


def test_in_stock():
    assert in_stock("apple")
    assert not in_stock("pear")
