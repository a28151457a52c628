"""Build hook for the compiled loops (simulator/engine/_scan.c, _learn.c); metadata is in
pyproject.

The extensions are optional: without a C compiler the install still succeeds and the
engine uses its NumPy path, which gives the same trajectory bit for bit (only slower when a
run makes many mistakes).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            f"simulator.engine.{name}",
            [f"simulator/engine/{name}.c"],
            depends=["simulator/engine/_kernels.h"],
            extra_compile_args=["-O2", "-ffp-contract=off"],  # no fused multiply-add
            optional=True,
        )
        for name in ("_scan", "_learn")
    ]
)
