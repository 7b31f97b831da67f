"""decision state and screened assignments

Revision ID: 1b75914197da
Revises: 1488e4e68dca
Create Date: 2026-11-23 12:39:08.516406
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '1b75914197da'
down_revision: str | None = '1488e4e68dca'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


ACTIONS = ("report", "block", "reject", "replace")


def upgrade() -> None:
    """Decisions get a state (applied -> APPLIED; raised flags that act -> PENDING; the rest
    RECORDED) and a claim time; actions are stored by name like every other enum column;
    assignments get the time live screening took them into account."""
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.add_column(sa.Column('screened_at', sa.DateTime(timezone=True), nullable=True))

    with op.batch_alter_table('screening_decision', schema=None) as batch_op:
        batch_op.add_column(sa.Column('state', sa.Enum('RECORDED', 'PENDING', 'CLAIMED', 'APPLIED', 'OVERRULED', name='decisionstate', native_enum=False, length=20), nullable=False, server_default='RECORDED'))
        batch_op.add_column(sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True))

    decisions = sa.table(
        'screening_decision',
        sa.column('applied', sa.Boolean),
        sa.column('flag', sa.Boolean),
        sa.column('action', sa.String),
        sa.column('state', sa.String),
    )
    op.execute(decisions.update().where(decisions.c.applied == sa.true()).values(state='APPLIED'))
    op.execute(
        decisions.update()
        .where(
            decisions.c.applied == sa.false(),
            decisions.c.flag == sa.true(),
            decisions.c.action != 'report',
        )
        .values(state='PENDING')
    )
    for action in ACTIONS:
        op.execute(
            decisions.update().where(decisions.c.action == action).values(action=action.upper())
        )

    with op.batch_alter_table('screening_decision', schema=None) as batch_op:
        batch_op.alter_column('state', server_default=None)
        batch_op.alter_column(
            'action',
            existing_type=sqlmodel.sql.sqltypes.AutoString(length=20),
            type_=sa.Enum('REPORT', 'BLOCK', 'REJECT', 'REPLACE', name='action', native_enum=False, length=20),
            existing_nullable=False,
        )
        batch_op.drop_column('applied')


def downgrade() -> None:
    with op.batch_alter_table('screening_decision', schema=None) as batch_op:
        batch_op.add_column(sa.Column('applied', sa.BOOLEAN(), nullable=False, server_default=sa.false()))
    decisions = sa.table(
        'screening_decision',
        sa.column('applied', sa.Boolean),
        sa.column('action', sa.String),
        sa.column('state', sa.String),
    )
    op.execute(decisions.update().where(decisions.c.state == 'APPLIED').values(applied=True))
    for action in ACTIONS:
        op.execute(
            decisions.update().where(decisions.c.action == action.upper()).values(action=action)
        )
    with op.batch_alter_table('screening_decision', schema=None) as batch_op:
        batch_op.alter_column('applied', server_default=None)
        batch_op.drop_column('claimed_at')
        batch_op.drop_column('state')

    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_column('screened_at')
