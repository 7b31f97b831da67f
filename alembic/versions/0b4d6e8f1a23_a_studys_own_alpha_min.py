"""a study's own alpha_min

Revision ID: 0b4d6e8f1a23
Revises: e9d2760e8b52
Create Date: 2026-11-29 00:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0b4d6e8f1a23'
down_revision: str | None = 'e9d2760e8b52'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # studies stored before keep reading their instrument's frozen spec (None here)
    with op.batch_alter_table('study', schema=None) as batch_op:
        batch_op.add_column(sa.Column('alpha_min', sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('study', schema=None) as batch_op:
        batch_op.drop_column('alpha_min')
