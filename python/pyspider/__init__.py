"""pyspider's script API on squall's engine: what `squall run` puts on a project's path."""
