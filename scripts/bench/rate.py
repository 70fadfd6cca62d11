"""The timing loop every peer benchmark shares: warm up, then count calls until the deadline."""
import time


def operations_per_second(operation, seconds, warmup=50, batch=20):
    """Calls operation() in batches for `seconds` of wall-clock time; returns calls per second."""
    for _ in range(warmup):
        operation()
    count = 0
    start = time.perf_counter()
    deadline = start + float(seconds)
    now = start
    while now < deadline:
        for _ in range(batch):
            operation()
        count += batch
        now = time.perf_counter()
    return count / (now - start)
