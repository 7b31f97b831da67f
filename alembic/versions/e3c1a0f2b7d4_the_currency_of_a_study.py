"""the currency of a study

Revision ID: e3c1a0f2b7d4
Revises: d5f5f90c6a44
Create Date: 2026-11-28 19:55:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = 'e3c1a0f2b7d4'
down_revision: str | None = 'd5f5f90c6a44'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # studies stored before the currency was kept were priced in US dollars
    with op.batch_alter_table('study', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('currency', sa.String(length=3), server_default='USD', nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table('study', schema=None) as batch_op:
        batch_op.drop_column('currency')
