// The official JavaScript suite (sdl_javascript_suite, its Node.js transport) doing the work
// of `sdl-benchmark core` over TCP: run by CoreLinks, which is core's HMI and activates the
// app. Prints one JSON line: {"trips": ms, "upload": ms}. The suite's sources are not ours:
// scripts/fetch-js-suite puts them, merged as its own build merges them, in a folder given as
// the first argument.
//
//   node js-suite-bench.mjs SUITE --host H --port P --app-id ID --trips N --bytes B
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// What the suite's bundler resolves and Node's module loader does not: relative imports
// written without ".js", and packages from Debian (ws, in /usr/share/nodejs, where this
// Node.js does not look).
register('data:text/javascript,' + encodeURIComponent(`
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
export async function resolve (specifier, context, next) {
    try {
        return await next(specifier, context);
    } catch (error) {
        if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
        if (specifier.startsWith('.')) return next(specifier + '.js', context);
        return { url: pathToFileURL(createRequire(context.parentURL).resolve('/usr/share/nodejs/' + specifier)).href };
    }
}`));

const [suite, ...rest] = process.argv.slice(2);
const { values: options } = parseArgs({
    args: rest,
    options: {
        host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '12345' },
        'app-id': { type: 'string', default: 'bench-js-0001' },
        trips: { type: 'string', default: '1000' }, bytes: { type: 'string', default: '8388608' },
    },
});
const load = async (path, name) => (await import(pathToFileURL(`${suite}/${path}`).href))[name];
const SdlManager = await load('manager/SdlManager.js', 'SdlManager');
const SdlManagerListener = await load('manager/SdlManagerListener.js', 'SdlManagerListener');
const AppConfig = await load('manager/AppConfig.js', 'AppConfig');
const LifecycleConfig = await load('manager/LifecycleConfig.js', 'LifecycleConfig');
const TcpClientConfig = await load('transport/TcpClientConfig.js', 'TcpClientConfig');
const Show = await load('rpc/messages/Show.js', 'Show');
const SdlFile = await load('manager/file/filetypes/SdlFile.js', 'SdlFile');
const FileType = await load('rpc/enums/FileType.js', 'FileType');
const AppHMIType = await load('rpc/enums/AppHMIType.js', 'AppHMIType');
const Language = await load('rpc/enums/Language.js', 'Language');
const FunctionID = await load('rpc/enums/FunctionID.js', 'FunctionID');
const HMILevel = await load('rpc/enums/HMILevel.js', 'HMILevel');

function fail (message) {
    console.error(`js-suite-bench: ${message}`);
    process.exit(1);
}
setTimeout(() => fail('the work did not end within 30 minutes'), 30 * 60 * 1000).unref();

let reachedFull;
const full = new Promise((resolve) => { reachedFull = resolve; });
let started;
const start = new Promise((resolve) => { started = resolve; });
const lifecycle = new LifecycleConfig()
    .setAppId(options['app-id']).setAppName('Bench JS')
    .setLanguageDesired(Language.EN_US).setHmiDisplayLanguageDesired(Language.EN_US)
    .setAppTypes([AppHMIType.NAVIGATION])
    .setTransportConfig(new TcpClientConfig(options.host, Number(options.port)))
    .setRpcNotificationListeners({
        [FunctionID.OnHMIStatus]: (status) => { if (status.getHmiLevel() === HMILevel.HMI_FULL) reachedFull(); },
    });
const listener = new SdlManagerListener()
    .setOnStart(() => started())
    .setOnError((_, info) => fail(`the manager failed: ${info}`));
const manager = new SdlManager(new AppConfig().setLifecycleConfig(lifecycle), listener);
manager.start();
const within = (promise, seconds, what) => Promise.race([
    promise, new Promise((_, reject) => setTimeout(() => reject(new Error(what)), seconds * 1000).unref()),
]);
try {
    await within(start, 120, `no registration with core at ${options.host}:${options.port} within 120 s`);
    await within(full, 120, 'the HMI did not activate the app within 120 s');
} catch (error) {
    fail(error.message);
}

const show = () => new Show().setMainField1('Hello').setMainField2('bench');
// Core may still refuse a Show for a moment after FULL (DISALLOWED until the app's
// permissions for FULL are in): the untimed first one waits for that, at most ten seconds.
for (let attempt = 1; ; attempt++) {
    const warmUp = await manager.sendRpcResolve(show());
    if (warmUp.getSuccess()) break;
    if (attempt === 100) fail(`core answered the first Show with ${warmUp.getResultCode()} for ten seconds`);
    await new Promise((resolve) => setTimeout(resolve, 100));
}
let begin = process.hrtime.bigint();
for (let trip = 0; trip < Number(options.trips); trip++) {
    const answer = await manager.sendRpcResolve(show());
    if (!answer.getSuccess()) fail(`core answered a Show with ${answer.getResultCode()}`);
}
const trips = Number(process.hrtime.bigint() - begin) / 1e6;

const name = `bench-js-${Date.now()}.bin`;
const file = new SdlFile(name, FileType.BINARY, new Uint8Array(Number(options.bytes)).fill(0x5a), false);
begin = process.hrtime.bigint();
const uploaded = await manager.getFileManager().uploadFile(file);
const upload = Number(process.hrtime.bigint() - begin) / 1e6;
if (!uploaded) fail('the file manager did not upload the file');
await manager.getFileManager().deleteRemoteFileWithName(name);

console.log(JSON.stringify({ trips, upload }));
manager.dispose();
setTimeout(() => process.exit(0), 500);
