"""Report tests use the shared harness fixtures (``built_plugin``, ``mc_env``, ``mc_task``)."""
