// The bundle's entry: the host's command, installed with the five plugins in the bundle's
// node_modules, where the host discovers them.
import '../node_modules/@toolhost/host/bin/toolhost.js';
