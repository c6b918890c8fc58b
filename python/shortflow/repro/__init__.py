"""Reproductions of published results (``shortflow repro ...``); filled in by the lead."""
