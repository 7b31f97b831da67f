"""Crowd platforms: MTurk (through boto3) and the local MTurk-compatible service."""
