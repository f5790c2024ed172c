def stock(line):
    name, count = line.split(",")
    return name, int(count)

if __name__ == "__main__":
    print(stock("apple,3"))
