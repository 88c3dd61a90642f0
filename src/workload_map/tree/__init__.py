"""The workload tree and how it is built."""
