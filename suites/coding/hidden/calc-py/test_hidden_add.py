"""Hidden tests: copied into the workspace only after the agent finished."""
import unittest

from calc import add


class HiddenAddTest(unittest.TestCase):
    def test_add_more(self):
        self.assertEqual(add(-2, 7), 5)
        self.assertEqual(add(0, 0), 0)
        self.assertEqual(add(1.5, 2.5), 4.0)
