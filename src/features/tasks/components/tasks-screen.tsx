// PLACEHOLDER: replaced by the feature's real screen.
import type { ReactNode } from 'react';

export function TasksScreen(props: { presence?: ReactNode }) {
  void props;
  return <h1>Tasks</h1>;
}
