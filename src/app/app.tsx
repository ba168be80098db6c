import './app.css';

export function App() {
  return (
    <main className="landing">
      <h1 className="landing__title">Outpost — offline-first shared task lists</h1>
      <p className="landing__status">Outpost is under construction. Check back soon.</p>
    </main>
  );
}
