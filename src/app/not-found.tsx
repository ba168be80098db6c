import { Link } from '@/lib/router';

export function NotFound() {
  return (
    <section className="screen screen--narrow">
      <h1>Page not found</h1>
      <p>There is nothing at this address. It may have been a list you no longer have.</p>
      <p>
        <Link to="/lists" className="btn btn--primary">
          Go to your lists
        </Link>
      </p>
    </section>
  );
}
