/* no_symbol.c - a shared object without gpulab_plugin(): gpulab must say that
 * it is no gpulab plugin (tests/integration/plugins.sh). */
int not_a_plugin(void);

int not_a_plugin(void)
{
    return 0;
}
