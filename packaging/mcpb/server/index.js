// The bundle's entry: the `@toolhost/server` distribution's command, installed with the host and the
// five plugins in the bundle's node_modules, where the host discovers them.
import '../node_modules/@toolhost/server/bin/toolhost.js';
