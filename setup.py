"""Packaging shim: ship the top-level alembic/, templates/ and task_specs/ inside the package.

The project keeps `alembic/` and `templates/` beside `harness/` (the shape of the tree), but an
installed wheel must still find its migrations and built-in templates, so they are mapped into
`harness.migrations` and `harness.builtin_templates` (and the shipped task specs, which
`harness demo` runs, into `harness.builtin_task_specs`). `harness.resources` finds them either
way.
The bundled datasets live inside the package (`harness/datasets/data/`) and ship as package
data; `data/ws353` is a valid package name, so it is declared as a (data-only) package.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["harness", "harness.*"])
    + ["harness.migrations", "harness.migrations.versions", "harness.builtin_templates"]
    + ["harness.builtin_task_specs"]
    + ["harness.datasets.data", "harness.datasets.data.ws353"],
    package_dir={
        "harness.migrations": "alembic",
        "harness.migrations.versions": "alembic/versions",
        "harness.builtin_templates": "templates",
        "harness.builtin_task_specs": "task_specs",
    },
    package_data={
        "harness": ["py.typed"],
        "harness.i18n": ["catalogs/*.po", "catalogs/*.pot"],
        "harness.datasets.data.ws353": ["*.csv", "*.txt", "README.md"],
        "harness.datasets.data": ["ws353-systems/*.csv", "ws353-systems/README.md"],
        "harness.migrations": ["*.py", "*.mako", "README"],
        "harness.migrations.versions": ["*.py"],
        "harness.builtin_templates": ["**/*"],
        "harness.builtin_task_specs": ["*.yaml", "guidelines/*", "items/*"],
    },
)
