"""Status line tests use the shared harness fixtures (``mc_plugin``, ``mc_env``, ``mc_task``)."""
