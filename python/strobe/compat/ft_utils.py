"""strobe.compat.ft_utils - trace-cruncher's `ft_utils` (tc.event,
tc.local_tep, tc.find_event_id) on strobe.  Events need an instance
(strobe never changes the top-level one); kprobes are not offered."""
from . import ftracepy as ft


def find_event_id(system, event):
    """strobe's id of an event (see strobe.compat.ftracepy.event_id)."""
    return ft.event_id(system, event)


def local_tep():
    """An event-format handle (print_process, print_info, get_event)."""
    return ft.tep_handle()


class event:
    """A static event: enable/disable it, set or clear its filter."""

    def __init__(self, system, name, static=True):
        self.system = system
        self.name = name
        self.instance_list = []
        self.evt_id = find_event_id(system, name)

    def id(self):
        return int(self.evt_id)

    def enable(self, instance=None):
        ft.enable_event(instance=instance, system=self.system, event=self.name)
        if instance not in self.instance_list:
            self.instance_list.append(instance)

    def disable(self, instance=None):
        ft.disable_event(instance=instance, system=self.system, event=self.name)
        if instance in self.instance_list:
            self.instance_list.remove(instance)

    def set_filter(self, filter, instance=None):  # noqa: A002
        ft.set_event_filter(instance=instance, system=self.system, event=self.name,
                            filter=filter)

    def clear_filter(self, instance=None):
        ft.clear_event_filter(instance=instance, system=self.system, event=self.name)


def kprobe(*args, **kw):
    raise NotImplementedError("kprobes are not offered by strobe's trace-cruncher "
                              "compatibility (tracepoints only)")


kretval_probe = kprobe
