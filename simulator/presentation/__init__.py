"""What the views show, computed without Qt: `Frame` (one moment of a run, with its
drawables), `Trace` (the road there), the explanation of a trial and the number format.

The window, the high-dimensional view and export all paint from these records, so a
number or a sentence is written once. Nothing here imports Qt (a test proves it).
"""
