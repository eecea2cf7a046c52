package rpc

import "syscall"

// dupOnto makes newfd a copy of oldfd (dup2; Linux on every architecture
// has dup3).
func dupOnto(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
