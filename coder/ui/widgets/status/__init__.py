"""The backend bar."""
