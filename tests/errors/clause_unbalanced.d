/* expect: D_SYNTAX 6:2 */
syscall::open:entry
/pid == $target/
{
	if (arg0) { trace(arg0);
}
