// The offer of notifications, where they start to make sense (issue 38): on the members screen
// of a list shared with someone, so tasks may be assigned to the person. Quiet and inline,
// never a dialog; shown only while notifications are neither on nor blocked and the person
// has not said "Not now" (remembered on this device). After an answer it says where the
// choice lives: Settings › Sync with the app closed.
import { useState } from 'react';

import { Button } from '@/components/ui/button';
import { useNotificationChoice } from '@/lib/pwa/notification-choice';
import { Link } from '@/lib/router';

import '../notification-offer.css';

export function NotificationOffer() {
  const choice = useNotificationChoice();
  /** Whether "Turn on" was pressed here: the offer then gives way to what came of it. */
  const [asked, setAsked] = useState(false);
  if (!asked && (choice.state !== 'off' || choice.dismissed !== false)) return null;

  let answer = '';
  if (asked && !choice.busy) {
    answer =
      choice.state === 'on'
        ? "Notifications are on: you'll get one when a task is assigned to you."
        : choice.state === 'denied'
          ? 'The browser blocked notifications for Outpost.'
          : 'Notifications stay off.';
  }

  return (
    <aside className="notification-offer" aria-label="Notifications">
      {asked ? null : (
        <>
          <p className="notification-offer__question">
            Get a notification when a task is assigned to you?
          </p>
          <div className="notification-offer__actions">
            <Button
              variant="primary"
              size="sm"
              onClick={() => {
                setAsked(true);
                // Straight from the click: the browser only asks during a user gesture.
                void choice.turnOn();
              }}
            >
              Turn on
            </Button>
            <Button variant="ghost" size="sm" onClick={() => void choice.dismiss()}>
              Not now
            </Button>
          </div>
        </>
      )}
      <p role="status" className="notification-offer__answer">
        {answer ? (
          <>
            {answer} <Link to="/settings#background">Change this in Settings</Link>.
          </>
        ) : null}
      </p>
    </aside>
  );
}
