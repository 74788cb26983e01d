"""LLM suggestions: an OpenAI-compatible client (httpx), judge prompts, verdict parsing, and the
resumable run behind `annotate suggest` (DESIGN.md sections 1 and 6)."""
