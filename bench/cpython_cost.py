# bench/cpython_cost.py - the script bench/cpython_cost counts: calls,
# loops, attribute and dict work, so every bytecode path that checks a
# PyDTrace_*_ENABLED() runs often; small enough to run under callgrind.
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm1(self):
        return abs(self.x) + abs(self.y)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work():
    total = 0
    for i in range(20000):
        p = Point(i, -i)
        total += p.norm1()
    d = {}
    for i in range(20000):
        d[str(i)] = i
    total += sum(d.values())
    total += fib(18)
    return total


print(work())
