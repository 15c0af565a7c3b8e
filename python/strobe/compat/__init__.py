"""strobe.compat - trace-cruncher's module names over strobe, so scripts
written for trace-cruncher run with their imports changed:

    import strobe.compat.ftracepy as ft      # was tracecruncher.ftracepy
    import strobe.compat.ft_utils as tc      # was tracecruncher.ft_utils
"""
