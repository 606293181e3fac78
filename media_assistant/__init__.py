"""Media Assistant (AI 智能媒体助理): batches of AI generation tasks over web and API models."""

__version__ = "0.1.0"
