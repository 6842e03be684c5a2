// `npm start`: placeholder until the surfaces issue lands (then: build, demo, Electron or browser mode).
console.log('Checkpoint Studio: the app shell is not built yet; run `npx gf --help` for the engine CLI.');
