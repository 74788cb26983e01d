"""annotate: expert annotation of LLM outputs, and how far the judgments can be trusted."""

__version__ = "0.1.0"
