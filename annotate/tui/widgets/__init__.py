"""Widgets of the annotation app, one module each."""
