"""Screens and dialogs of the annotation app, one module each."""
