import statistics

values = [3, 1, 4, 1, 5, 9, 2, 6]
print("median", statistics.median(values))
