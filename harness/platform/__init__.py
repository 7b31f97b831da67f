"""Crowd platforms harness can run studies on (local, sandbox, production)."""
