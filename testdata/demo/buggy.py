"""Moving statistics over a window of samples."""

from typing import Optional, Sequence


class Window:
    """A fixed-size window of float samples."""

    def __init__(self, size: int):
        self.size = size
        self.samples = []

    def push(self, x: float) -> None:
        self.samples.append(x)
        if len(self.samples) > self.size:
            self.samples.pop(0)

    def mean(self) -> float:
        # BUG: ZeroDivisionError on an empty window
        return sum(self.samples) / len(self.samples)

    def last(self) -> Optional[float]:
        return self.samples[-1]


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    k = int(round(p / 100 * (len(ordered) - 1)))
    return ordered[k]
