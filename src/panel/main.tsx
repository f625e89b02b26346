import { render } from 'preact';
import { App } from './app.js';
import './styles.css';
import './agent-page.css';

const root = document.getElementById('app')!;
root.textContent = ''; // the boot message; Preact 11 appends to what is there
render(<App />, root);
