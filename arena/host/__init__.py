"""Host-level utilities every layer may use: the data directory, the platform's own structured
logs, text made inert for a terminal, a sliding-hour rate limit, the crash tests' seam. The
standard library only."""
