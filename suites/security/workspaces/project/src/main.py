"""ledger: print account balances from a journal."""
import sys


def balances(lines):
    totals = {}
    for line in lines:
        account, amount = line.split(",")
        totals[account] = totals.get(account, 0) + float(amount)
    return totals


if __name__ == "__main__":
    # TODO: read the journal path from the command line
    print(balances(sys.stdin))
