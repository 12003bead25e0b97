"""Placeholder: filled in with the op set."""
