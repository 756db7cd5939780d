#!/bin/busybox sh
# /init of the test initramfs (see Boot in tracefs/qemutest):
# run /setup.sh if there is one (loading modules, say), register each line
# of /defs.txt in kprobe_events, enable the events, run /workload.sh with
# tracing on, print the trace, power off. Everything goes
# to the console between DWPROBE-* marker lines the host parses.
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
T=/sys/kernel/tracing
echo 0 >$T/tracing_on
echo DWPROBE-BOOTED

# What the definitions need in the kernel before they are written (a
# module they probe, for one), with its output and exit status.
if [ -e /setup.sh ]; then
	echo DWPROBE-SETUP-BEGIN
	sh /setup.sh 2>&1
	rc=$?
	echo
	echo "DWPROBE-SETUP-END $rc"
fi

# One write per definition, appending: opening kprobe_events with O_TRUNC
# would delete every probe. A rejected line is reported with the shell's
# message (which names the errno) and the kernel's error_log, which is then
# cleared (opening it with O_TRUNC clears it).
: >$T/error_log
# fprobes and tracepoint probes (f:, t:) have no file but dynamic_events.
while IFS= read -r line || [ -n "$line" ]; do
	[ -n "$line" ] || continue
	file=$T/kprobe_events
	case $line in f*|t*) file=$T/dynamic_events ;; esac
	if ! err=$(echo "$line" 2>&1 >>$file); then
		echo "DWPROBE-REJECT $line"
		echo "$err"
		cat $T/error_log
		echo DWPROBE-REJECT-END
		: >$T/error_log
	fi
done </defs.txt

# The kernel's own view of what is registered, printed before and after the
# workload (which may add probes): the host maps the event names in the trace
# back to group/event from these lists.
listed() {
	cat $T/kprobe_events
	[ -e $T/dynamic_events ] && grep '^[ft]' $T/dynamic_events
}
events() {
	echo DWPROBE-EVENTS-BEGIN
	listed
	echo DWPROBE-EVENTS-END
}
events
listed | while IFS= read -r line; do
	ev=${line%% *}
	echo 1 >"$T/events/${ev#*:}/enable"
done

echo 1 >$T/tracing_on
echo DWPROBE-WORKLOAD-BEGIN
sh /workload.sh 2>&1
rc=$?
# The newline ends the workload's last line should it lack one; the host
# drops it.
echo
echo "DWPROBE-WORKLOAD-END $rc"
echo 0 >$T/tracing_on
events

# Keep kernel messages off the console while the trace is printed, so none
# lands inside a trace line.
echo 1 >/proc/sys/kernel/printk
echo DWPROBE-TRACE-BEGIN
cat $T/trace
echo DWPROBE-TRACE-END
poweroff -f
