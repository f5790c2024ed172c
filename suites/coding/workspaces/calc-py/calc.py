"""A tiny calculator used by tracegate's coding suite."""


def add(a, b):
    return a - b


def multiply(a, b):
    return a * b


def mean(values):
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / len(values)
