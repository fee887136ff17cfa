"""Java collections and hash codes whose iteration or tie order changes an answer upstream."""
