// Imported first by main.tsx (modules run in the order they are imported): asks for the current
// screen's code before the rest of the app shell runs, so the worker serves it meanwhile.
import { firstScreenPath, loadScreenCodeAt } from './screen-code';

loadScreenCodeAt(firstScreenPath());
