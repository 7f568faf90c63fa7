/** An application without any engine jar. */
module example.noengine {
    requires dev.ferry;
}
