package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// components in start order; sandbox-down stops them in reverse order.
var components = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kueue", "jobset"}

func pidFile(state, name string) string { return filepath.Join(state, "pids", name+".pid") }
func logFile(state, name string) string { return filepath.Join(state, "logs", name+".log") }

// start launches a detached process (own session, output to its log file) and records its PID.
// The process keeps running after the runner exits; sandbox-down ends it by that PID.
func start(state, name, bin string, args []string, env []string) (int, error) {
	if err := os.MkdirAll(filepath.Join(state, "logs"), 0o755); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Join(state, "pids"), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(logFile(state, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, out, out
	cmd.Dir = state
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", name, err)
	}
	pid := cmd.Process.Pid
	if err := os.WriteFile(pidFile(state, name), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return 0, err
	}
	// Reap the child if it dies while the runner still waits for it (otherwise it stays a zombie
	// and looks alive); once the runner exits, init adopts the process.
	go func() { _ = cmd.Wait() }()
	return pid, nil
}

// alive reports whether pid is running and its command line mentions want (guards against PID reuse).
// Under gVisor, /proc/<pid>/cmdline of a busy process sometimes reads empty; an empty command line
// is then retried, and a process that still exists and is not a zombie counts as alive.
func alive(pid int, want string) bool {
	if pid <= 0 {
		return false
	}
	for attempt := 0; ; attempt++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return false
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		// Field 3 is the state; Z means zombie (already dead, waiting to be reaped). The command
		// name in field 2 is parenthesised and may hold spaces: parse after the last ')'.
		if i := strings.LastIndexByte(string(st), ')'); i >= 0 {
			if f := strings.Fields(string(st)[i+1:]); len(f) > 0 && f[0] == "Z" {
				return false
			}
		}
		if len(b) > 0 {
			return strings.Contains(string(b), want)
		}
		if attempt == 5 {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(state, name string) int {
	b, err := os.ReadFile(pidFile(state, name))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// stopAll ends every recorded component (SIGTERM, then SIGKILL after a grace period),
// in reverse start order, and removes the PID files. Idempotent.
// visibilityMarker, in the state folder, records that sandbox-up created
// the host's empty /visibility mount point.
const visibilityMarker = "visibility-mountpoint-created"

func stopAll(state string) error {
	defer func() {
		if _, err := os.Stat(filepath.Join(state, visibilityMarker)); err == nil {
			_ = os.Remove("/visibility") // only if still empty
			_ = os.Remove(filepath.Join(state, visibilityMarker))
		}
	}()
	var errs []error
	// A manager's MultiKueue worker (worker.go) first; it has none of its own.
	if w := workerState(state); fileExists(filepath.Join(w, "env")) || len(running(w)) > 0 {
		if err := stopAll(w); err != nil {
			errs = append(errs, err)
		}
	}
	for i := len(components) - 1; i >= 0; i-- {
		if err := stopOne(state, components[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// stopOne ends one recorded component (SIGTERM, then SIGKILL after a grace period) and removes
// its PID file. A component that is not running is not an error.
func stopOne(state, name string) error {
	pid := readPid(state, name)
	if pid == 0 {
		return nil
	}
	// Every component's command line contains the state dir (its config, data or kubeconfig path).
	if alive(pid, state) {
		fmt.Printf("stopping %s (pid %d)\n", name, pid)
		_ = syscall.Kill(pid, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid, state) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(pid, state) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			time.Sleep(200 * time.Millisecond)
		}
		if alive(pid, state) {
			return fmt.Errorf("%s (pid %d) did not stop", name, pid)
		}
	}
	return os.Remove(pidFile(state, name))
}

// running lists the components whose recorded process is still alive.
func running(state string) []string {
	var r []string
	for _, name := range components {
		if pid := readPid(state, name); alive(pid, state) {
			r = append(r, fmt.Sprintf("%s(pid %d)", name, pid))
		}
	}
	return r
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// checkPort fails clearly if a fixed port is already taken.
func checkPort(port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("port 127.0.0.1:%d is busy (%v); pick other ports or run sandbox-down", port, err)
	}
	return l.Close()
}
