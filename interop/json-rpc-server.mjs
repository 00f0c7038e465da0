// A generic JSON-RPC 2.0 MCP server on Node's own http module, as many servers are written: it reads every body with
// JSON.parse (so an id past 2^53 comes back rounded), takes batches, and executes what a message names whether or not
// it has an id (a tools/call sent as a notification runs, unanswered). It listens on 127.0.0.1 at PORT.
//
//   POST /mcp      one message or a batch; answers application/json (an array for a batch), or 202 when nothing
//                  asked for an answer. initialize opens a session (Mcp-Session-Id: n-1, n-2, ...). In a session, a
//                  request whose params._meta.resume is true is answered later: the POST is answered as an event
//                  stream (when the client accepts one) that carries the other answers and ends without that one, as
//                  a server that closes a stream early does; the answer waits for the session's next GET
//   GET  /mcp      in a session, an event stream of the answers waiting (each event with an id), then its end
//   GET  /sse      the same server over the legacy HTTP+SSE transport (MCP 2024-11-05), as older Node servers speak
//                  it: an event stream whose first event names the session's endpoint (/messages?session=l-1, ...);
//                  what is POSTed there (JSON.parse again) is answered 202 and its answers go on that stream. A
//                  tools/call whose arguments hold holdUntilPing: true is answered after the session's next ping
//   GET  /calls    the tool calls it executed, in order: [{name, arguments, notification}]
//   DELETE /calls  forgets them
//
// Tools: echo, whoami (its schema declares the reserved _tenant), secret_admin; each answers with its name and the
// arguments it got, as text the relay's interceptors can redact. A call whose arguments hold strayId is answered once
// more under that id, as a server that mixes up its answers would (in a session, the stray of a call answered later
// goes to the GET stream as well). Tools carry fields no SDK type models (execution, a vendor extension), so a relay
// that rewrites them shows.
import http from 'node:http';

const calls = [];

/** The answers waiting for each session's next GET, by session id. */
const later = new Map();
let sessions = 0;
let events = 0;

const TOOLS = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Echoes the message it is given',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    execution: { taskSupport: 'optional' },
    'x-vendor': { rank: 1, tags: ['basic'] },
    _meta: { 'vendor.example/origin': 'json-rpc-server' },
  },
  {
    name: 'whoami',
    description: 'Answers with the arguments it got, the tenant among them',
    inputSchema: {
      type: 'object',
      properties: { _tenant: { type: 'string' }, message: { type: 'string' } },
      required: ['_tenant'],
    },
  },
  {
    name: 'secret_admin',
    description: 'Administers secrets',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  },
];

function result(id, value) {
  return { jsonrpc: '2.0', id, result: value };
}

function error(id, code, message) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** One SSE event of a message, with an id of its own. */
function event(message) {
  return `id: e-${++events}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function text(value) {
  return { content: [{ type: 'text', text: value }] };
}

/** The answers one message gets: none for a notification or a client's answer, else one (or two, with strayId). */
function execute(message) {
  if (typeof message !== 'object' || message === null || typeof message.method !== 'string') {
    return [];
  }
  const notification = !('id' in message);
  const params = message.params ?? {};
  let answers;
  switch (message.method) {
    case 'initialize':
      answers = [result(message.id, {
        protocolVersion: params.protocolVersion ?? '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'json-rpc-server', version: '1.0.0' },
      })];
      break;
    case 'ping':
      answers = [result(message.id, {})];
      break;
    case 'tools/list':
      answers = [result(message.id, { tools: TOOLS })];
      break;
    case 'tools/call': {
      const args = params.arguments ?? {};
      calls.push({ name: params.name, arguments: args, notification });
      if (!TOOLS.some((tool) => tool.name === params.name)) {
        answers = [result(message.id, { ...text(`Unknown tool: ${params.name}`), isError: true })];
        break;
      }
      answers = [result(message.id, text(`the secret of ${params.name}: ${JSON.stringify(args)}`))];
      if ('strayId' in args) {
        answers.push(result(args.strayId, text(`the stray secret of ${params.name}`)));
      }
      break;
    }
    default:
      answers = message.method.startsWith('notifications/') ? [] : [error(message.id, -32601, 'Method not found')];
  }
  return notification ? [] : answers;
}

/** The legacy HTTP+SSE sessions: their event stream and the answers held for their next ping, by session id. */
const legacy = new Map();
let legacySessions = 0;

function openLegacyStream(response) {
  const id = `l-${++legacySessions}`;
  response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  response.write(`event: endpoint\ndata: /messages?session=${id}\n\n`);
  legacy.set(id, { stream: response, held: [] });
  response.on('close', () => legacy.delete(id));
}

function postToLegacySession(session, body, response) {
  if (session === undefined) {
    response.writeHead(404).end();
    return;
  }
  let messages;
  try {
    messages = JSON.parse(body);
  }
  catch {
    response.writeHead(400).end();
    return;
  }
  response.writeHead(202).end();
  const send = (message) => session.stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  for (const message of Array.isArray(messages) ? messages : [messages]) {
    const answered = execute(message);
    if (message?.params?.arguments?.holdUntilPing === true) {
      session.held.push(...answered);
      continue;
    }
    answered.forEach(send);
    if (message?.method === 'ping') {
      session.held.splice(0).forEach(send);
    }
  }
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url, 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/sse') {
      openLegacyStream(response);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/messages') {
      postToLegacySession(legacy.get(url.searchParams.get('session')), Buffer.concat(chunks).toString('utf8'),
        response);
      return;
    }
    if (request.url === '/calls') {
      if (request.method === 'DELETE') {
        calls.length = 0;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(calls));
      return;
    }
    const session = request.headers['mcp-session-id'];
    if (request.method === 'GET' && later.has(session)) {
      response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': session });
      response.end(later.get(session).splice(0).map(event).join(''));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    catch {
      response.writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(error(null, -32700, 'Parse error')));
      return;
    }
    const messages = Array.isArray(body) ? body : [body];
    const headers = {};
    let inSession = session;
    if (messages.some((message) => message?.method === 'initialize' && 'id' in message)) {
      inSession = `n-${++sessions}`;
      later.set(inSession, []);
      headers['Mcp-Session-Id'] = inSession;
    }
    const streams = later.has(inSession) && (request.headers.accept ?? '').includes('text/event-stream');
    const answers = [];
    let deferred = false;
    for (const message of messages) {
      const answered = execute(message);
      if (streams && message?.params?._meta?.resume === true && answered.length > 0) {
        later.get(inSession).push(...answered);
        deferred = true;
      }
      else {
        answers.push(...answered);
      }
    }
    if (deferred) {
      response.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream' });
      response.end(answers.map(event).join(''));
      return;
    }
    if (answers.length === 0) {
      response.writeHead(202, headers).end();
      return;
    }
    response.writeHead(200, { ...headers, 'Content-Type': 'application/json' })
      .end(JSON.stringify(Array.isArray(body) ? answers : answers.length === 1 ? answers[0] : answers));
  });
});

server.listen(Number(process.env.PORT), '127.0.0.1');
