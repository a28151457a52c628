"""Build hook for the one compiled loop (simulator/engine/_scan.c); metadata is in pyproject.

The extension is optional: without a C compiler the install still succeeds and the engine
uses its NumPy path, which gives the same trajectory bit for bit (only slower when a run
makes many mistakes).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "simulator.engine._scan",
            ["simulator/engine/_scan.c"],
            extra_compile_args=["-O2", "-ffp-contract=off"],  # no fused multiply-add
            optional=True,
        )
    ]
)
