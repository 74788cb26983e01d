"""The sections of the session report, one module each; each builder takes the shared context and
the store and returns (Section, JSON payload)."""
