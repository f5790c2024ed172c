import sys, os
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from app import stock

def test_stock():
    assert stock("pear,0") == ("pear", 0)
