"""Linear Classifier Lab: a teaching simulator for online linear classifiers."""

__version__ = "0.1.0"
