"""Packaging shim: ship the top-level alembic/ and templates/ folders inside the package.

The project keeps `alembic/` and `templates/` beside `harness/` (the shape of the tree), but an
installed wheel must still find its migrations and built-in templates, so they are mapped into
`harness.migrations` and `harness.builtin_templates`. `harness.resources` finds them either way.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["harness", "harness.*"])
    + ["harness.migrations", "harness.migrations.versions", "harness.builtin_templates"],
    package_dir={
        "harness.migrations": "alembic",
        "harness.migrations.versions": "alembic/versions",
        "harness.builtin_templates": "templates",
    },
    package_data={
        "harness": ["py.typed"],
        "harness.migrations": ["*.py", "*.mako", "README"],
        "harness.migrations.versions": ["*.py"],
        "harness.builtin_templates": ["**/*"],
    },
)
